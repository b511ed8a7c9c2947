!! Misnested stops:
!!   misnest stat      stat and errmsg returned, the tree unchanged
!!   misnest nostat    the message on the error unit, exit status non-zero
!!   misnest statonly  stat without errmsg
!!   misnest idle      stop with nothing running
program misnest
  use timer_tree_type
  implicit none
  character(32) :: mode
  character(:), allocatable :: errmsg
  integer :: stat

  call get_command_argument(1, mode)
  call start_timer('A')
  call start_timer('B')
  select case (mode)
  case ('stat')
    call stop_timer('A', stat, errmsg)
    print '(a,i0)', 'stat=', stat
    print '(a)', 'errmsg=' // errmsg
    ! Still inside B: stopping B then A works.
    call stop_timer('B', stat)
    print '(a,i0)', 'stop B stat=', stat
    call stop_timer('A', stat, errmsg)
    print '(a,i0,a,l1)', 'stop A stat=', stat, ' errmsg allocated=', allocated(errmsg)
  case ('statonly')
    call stop_timer('X', stat)
    print '(a,i0)', 'stat=', stat
  case ('idle')
    call stop_timer('B')
    call stop_timer('A')
    call stop_timer('A', stat, errmsg)
    print '(a,i0)', 'stat=', stat
    print '(a)', 'errmsg=' // errmsg
  case ('nostat')
    call stop_timer('A')
    print '(a)', 'not reached'
  end select
end program
